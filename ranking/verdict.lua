--- The verdict: which finding is the bottleneck. Not a methodology: the rules
-- the report ranks findings by (docs/verdict.md), as data. The verdict sentence
-- is built from them in one place, core/report/rank.c (report__verdict).
--
-- capacity: for a check, the metric (a %) that says how much of its resource's
-- capacity was lost over the window; at equal severity the finding that lost
-- more ranks first, and one with no such metric after those with one. PSI
-- "some" is the share of the window some task stalled on the resource: the same
-- measure of lost work for CPU, memory and disk. Utilization is not in it: a
-- resource 100% busy lost nothing until work waits for it (saturation).
--
-- exhaustion: for a check that judges a finite resource by its trend, the metric (seconds) of the
-- time until it runs out. A finding whose resource runs out (that metric warn or crit) ranks before
-- any other of the same severity, the soonest first: a disk full in 40 s outranks a busy CPU, which
-- loses nothing until it is too late to react. The verdict then says when, and who.
--
-- explains: findings that are consequences of another. When the cause is a
-- finding too (warn or crit), the consequence ranks after every finding that
-- is not explained, whatever its severity, and the report says "explained by".
-- when = "always": the cause accounts for the consequence whoever its culprit;
-- when = "same_culprit": only when the cause's first culprit (its pid) is one
-- of the consequence's culprits, so another process's load is never explained
-- away by ours; when = "same_culprit_or_kernel": the same, or the consequence's
-- first culprit is a kernel thread (whose CPU time serves others' I/O).
return {
  capacity = {
    ["use.cpu-saturation"] = "psi_some_pct",
    ["use.memory-saturation"] = "psi_some_pct",
    ["use.disk-saturation"] = "psi_some_pct",
  },
  exhaustion = {
    ["use.memory-runout"] = "time_left_s",
    ["use.swap-runout"] = "time_left_s",
    ["use.filesystem-runout"] = "time_left_s",
    ["use.fd-runout"] = "time_left_s",
    ["use.task-runout"] = "time_left_s",
    ["use.network-runout"] = "time_left_s",
    ["use.network-listen"] = "time_left_s",
  },
  explains = {
    { cause = "workload.process-what", when = "always",
      consequences = { "use.cpu-utilization", "use.cpu-saturation", "use.cpu-utilization-percpu" },
      reason = "an exec storm: starting short-lived processes is CPU work that no long-lived process is charged for" },
    { cause = "workload.syscall-what", when = "same_culprit",
      consequences = { "use.cpu-utilization", "use.cpu-saturation", "use.cpu-utilization-percpu" },
      reason = "the same process makes the syscalls: its CPU time is spent entering and leaving the kernel" },
    { cause = "use.cpu-utilization-percpu", when = "same_culprit",
      consequences = { "use.cpu-utilization", "use.cpu-saturation" },
      reason = "one single-threaded process keeps one CPU busy: more CPUs would not help it" },
    { cause = "use.disk-saturation", when = "same_culprit_or_kernel",
      consequences = { "use.cpu-utilization", "use.cpu-saturation", "workload.syscall-what" },
      reason = "the CPU time serves the I/O: the processes waiting on the disk, or kernel threads (softirqs, loop and block workers) completing it" },
    { cause = "use.cgroup-saturation", when = "same_culprit",
      consequences = { "use.cpu-saturation" },
      reason = "a CPU quota throttles the process: its threads wait for their cgroup's next period, not for a free CPU" },
    { cause = "use.user-mutex-waits", when = "same_culprit",
      consequences = { "use.cpu-saturation", "use.cpu-utilization" },
      reason = "a lock convoy: the threads the lock hands off to crowd the run queue and its waits cost CPU; the lock serialises them, more CPUs would not help" },
    { cause = "use.memory-saturation", when = "always",
      consequences = { "use.disk-saturation", "use.disk-utilization" },
      reason = "memory pressure: swapping and reclaim turn into disk I/O" },
  },
}
