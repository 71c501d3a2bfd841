--- Test check (tests/cli/heatmap.t): a bad ctx:heatmap the check does not catch ends it in error.
return {
  id = "workload.signal-why",
  title = "Heat map refused",
  methodology = "workload",
  resource = "signal",
  metric = "why",
  tags = { "proc" },
  collect = {},

  run = function(ctx, args)
    ctx:heatmap("worse", { interval_ms = -1, unit = "us", counts = {} })
  end,
}
