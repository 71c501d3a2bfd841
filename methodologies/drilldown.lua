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
    { trigger = "use.cpu-utilization-percpu", run = { "drilldown.cpu-who" },
      why = "one CPU hot while the others idle: which threads keep it busy" },
    { trigger = "use.disk-saturation", run = { "drilldown.disk-who" },
      why = "disk I/O waiting in queues: which processes do the I/O, and the slowest requests" },
    { trigger = "use.disk-utilization", run = { "drilldown.disk-who" },
      why = "a disk busy most of the time: which processes do the I/O" },
    { trigger = "use.memory-saturation", run = { "drilldown.memory-who" },
      why = "memory under pressure: who faults, and how the kernel reclaims" },
    { trigger = "use.memory-errors", run = { "drilldown.memory-who" },
      why = "OOM kills: who was allocating, and who faults" },
    { trigger = "use.network-errors", run = { "drilldown.network-why" },
      why = "network errors: which hosts and states retransmit, and why packets are dropped" },
    { trigger = "use.fd-utilization", run = { "drilldown.fd-who" },
      why = "file descriptors near a limit: which processes hold them" },
    { trigger = "use.fd-errors", run = { "drilldown.fd-who" },
      why = "EMFILE/ENFILE failures: who failed, and who is nearest its limit" },
    { trigger = "use.task-utilization", run = { "drilldown.task-who" },
      why = "threads near threads-max or pid_max: which processes hold them" },
    { trigger = "use.task-errors", run = { "drilldown.task-who" },
      why = "fork/clone failures: who failed, and who holds the most threads" },
  },
}
