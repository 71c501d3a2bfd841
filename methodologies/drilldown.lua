--- Drill-down: when a finding says a resource is in trouble, a second, shorter
-- window of the same run looks deeper at it (Gregg's drill-down analysis: from
-- the symptom to who and why). Each rule: the check whose warn or crit finding
-- fires it, the deeper checks to run, and the reason the report shows.
return {
  id = "drilldown",
  title = "Drill-down",
  description = "Deeper checks over a second, shorter window, run when a finding calls for them.",
  order = 3,
  resources = { "cpu", "memory", "disk", "network", "fd", "task" },
  metrics = { "who", "why" },
  tags = { "drilldown", "proc", "tracing" },
  rules = {
    { trigger = "use.cpu-saturation", run = { "drilldown.cpu-why" },
      why = "CPU saturated: which threads wait for a CPU, and what code the running ones execute" },
  },
}
