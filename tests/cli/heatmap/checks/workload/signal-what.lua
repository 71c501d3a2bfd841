--- Test check (tests/cli/heatmap.t): ctx:heatmap end to end, a good latency map, a subsecond map, and bad input caught.
return {
  id = "workload.signal-what",
  title = "Heat map end to end",
  methodology = "workload",
  resource = "signal",
  metric = "what",
  tags = { "proc" },
  collect = {},

  run = function(ctx, args)
    -- 30 intervals of 200 ms: 2-4 us always, one 0.5-1 s outlier in interval 12, one ragged row
    local counts = {}
    for i = 1, 30 do counts[i] = { 0, 100 } end
    for s = 3, 19 do counts[12][s] = 0 end
    counts[12][20] = 1
    counts[13] = {}
    ctx:heatmap("Latency <b>of</b> the test", { interval_ms = 200, unit = "us", counts = counts })
    -- a tool's info that traced 1 s of a 3 s window (a duty cycle): the report says so under it
    ctx:heatmap("Offsets", { interval_ms = 1000, row_ms = 50, unit = "%", counts = { { 100, 0, 50 }, { 100 } } },
                { traced = { traced_from_s = -0.01, traced_to_s = 1.02, window_s = 3.0 } })
    -- bad input: an error the check can catch, with one line naming the element
    local okk, err = pcall(ctx.heatmap, ctx, "bad", { interval_ms = 200, unit = "us", counts = { { 1, "x" } } })
    ctx:note("caught: " .. tostring(err))
    local _, terr = pcall(ctx.table, ctx, { title = "bad traced", columns = { "a" }, rows = {}, traced = "all" })
    ctx:note("caught: " .. tostring(terr))
  end,
}
