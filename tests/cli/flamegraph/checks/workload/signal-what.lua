--- Test check (tests/cli/flamegraph.t): a fixed folded profile, hostile frame names included, as a flame graph.
local long = string.rep("x", 3000)

return {
  id = "workload.signal-what",
  title = "Flame graph end to end",
  methodology = "workload",
  resource = "signal",
  metric = "what",
  tags = { "proc" },
  collect = {},

  run = function(ctx, args)
    ctx:flamegraph{
      title = "CPU profile <b>of</b> the test",
      unit = "samples",
      folded = {
        "bash;main;do_work;sonde_test_spin 4711",
        "bash;main;do_work;sonde_test_spin 289",
        "bash;main;do_work;<script>alert(1)</script> 300",
        "bash;main;\"onload=\"alert(1) 200",
        "bash;]]>;x 100",
        "bash;bad\xff\xfeutf8 90",
        "bash;" .. long .. " 80",
        "bash;main;idle 1000",
      },
    }
    -- The same profile as one string of lines, counted in microseconds.
    ctx:flamegraph{
      title = "Off-CPU time",
      unit = "us",
      folded = "app;read;vfs_read 1500000\napp;write 2500\n\napp;read;vfs_read 500000\n",
    }
  end,
}
