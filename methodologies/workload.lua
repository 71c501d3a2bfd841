--- Workload characterization: who is causing the load, what it is, how it changes.
return {
  id = "workload",
  title = "Workload characterization",
  description = "Who causes the load (processes, users), what the load is (IOPS, "
    .. "throughput, I/O sizes, packets), and how it changes over the window.",
  order = 2,
  resources = { "process", "container", "cpu", "memory", "disk", "network", "syscall", "signal", "host" },
  metrics = { "who", "what", "how", "why" },
  tags = { "default", "proc", "tracing" },
}
