--- Test check (tests/cli/numbers.t): figures as the issue saw them printed for machines
-- ("2.155e+04 /s", "4.506e+05 bytes/s", "queue_size 0.002803", "1 samples", "\_\_rmap...").
return {
  id = "use.interconnect-saturation",
  title = "Numbers for people",
  methodology = "use",
  resource = "interconnect",
  metric = "saturation",
  tags = { "proc" },
  collect = {},

  run = function(ctx, args)
    ctx:metric("context_switches", 21550, { unit = "/s", agg = "mean" })
    ctx:metric("throughput", 450600, { unit = "bytes/s", agg = "mean" })
    ctx:metric("queue_size", 0.002803, { agg = "mean" })
    ctx:metric("inodes_used", 456400, { agg = "last" })
    ctx:metric("profiled", 1, { unit = "samples", agg = "total" })
    ctx:metric("await", 0.0028, { unit = "s", agg = "mean" })
    ctx:table { title = "Top functions", columns = { "function", "samples", "rate" },
                code = { "function" },
                rows = { { "__rmap_walk_file_[k]", 1, 1440.5 }, { "do_sys_open", 3, 0.25 } } }
    ctx:summary(string.format("%s, %s, %s", units.value(21550, "/s"), units.value(450600, "bytes/s"),
      units.value(1, "samples")))
    ctx:flamegraph { title = "One sample", unit = "samples", folded = { "app;__rmap_walk_file_[k] 1" } }
  end,
}
