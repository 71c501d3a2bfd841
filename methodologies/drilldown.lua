--- Drill-down: when a finding says a resource is in trouble, a second, shorter
-- window of the same run looks deeper at it (Gregg's drill-down analysis: from
-- the symptom to who and why). Each rule: the check whose warn or crit finding
-- fires it, the deeper checks to run, and the reason the report shows. With
-- filter = "culprits", the BPF tools of its checks that can filter (syscount,
-- fslatency, futexctn, klockstat, offcputime) trace only the trigger's culprits, filtered
-- in the kernel: tracing a hot path (every syscall, every lock) is for the
-- suspects, in the second window, within the budget (--max-overhead).
return {
  id = "drilldown",
  title = "Drill-down",
  description = "Deeper checks over a second, shorter window, run when a finding calls for them.",
  order = 3,
  resources = { "cpu", "memory", "disk", "network", "fd", "task", "syscall", "interrupt",
                "kernel-mutex", "user-mutex", "filesystem" },
  metrics = { "who", "why" },
  tags = { "drilldown", "proc", "tracing" },
  rules = {
    { trigger = "use.cpu-saturation", run = { "drilldown.cpu-why" },
      why = "CPU saturated: which threads wait for a CPU, and what code the running ones execute" },
    { trigger = "use.cpu-utilization-percpu", run = { "drilldown.cpu-who" },
      why = "one CPU hot while the others idle: which threads keep it busy" },
    { trigger = "use.disk-saturation", run = { "drilldown.disk-who", "drilldown.filesystem-why" }, filter = "culprits",
      why = "disk I/O waiting in queues: which processes do the I/O, the slowest requests, and whether their file syscalls wait on the disk or on the file system" },
    { trigger = "use.disk-utilization", run = { "drilldown.disk-who", "drilldown.filesystem-why" }, filter = "culprits",
      why = "a disk busy most of the time: which processes do the I/O, and how long their file syscalls wait" },
    { trigger = "use.memory-saturation", run = { "drilldown.memory-who" },
      why = "memory under pressure: who faults, and how the kernel reclaims" },
    { trigger = "use.memory-errors", run = { "drilldown.memory-who" },
      why = "OOM kills: who was allocating, and who faults" },
    { trigger = "use.network-errors", run = { "drilldown.network-why" },
      why = "network errors: which hosts and states retransmit, and why packets are dropped" },
    { trigger = "use.fd-utilization", run = { "drilldown.fd-who" }, filter = "culprits",
      why = "file descriptors near a limit: which processes hold them, and which fail to get one" },
    { trigger = "use.task-utilization", run = { "drilldown.task-who" },
      why = "threads near threads-max or pid_max: which processes hold them, and whose forks fail" },
    { trigger = "use.filesystem-utilization", run = { "drilldown.filesystem-who" },
      why = "a file system filling up: whose writes are refused for want of space or quota" },
    { trigger = "workload.syscall-what", run = { "drilldown.syscall-who", "drilldown.filesystem-why" }, filter = "culprits",
      why = "syscall-heavy processes: every syscall of theirs, counted in the kernel, and whether they wait on files" },
    { trigger = "workload.cpu-what", run = { "drilldown.interrupt-why" },
      why = "a CPU busy in interrupts: the time of each interrupt handler and softirq" },
    { trigger = "use.kernel-mutex-saturation", run = { "drilldown.kernel-mutex-who" }, filter = "culprits",
      why = "CPU time spinning on kernel locks: which locks, taken where, by whom" },
    { trigger = "use.user-mutex-saturation", run = { "drilldown.user-mutex-who" }, filter = "culprits",
      why = "CPU time in futex code: which user locks are contended, by whom, and failed waits" },
  },
}
