--- USE method: for every resource, its utilization, saturation and errors.
-- Brendan Gregg's method: check each cell of the matrix, find the bottleneck
-- quickly, and list what cannot be seen (known unknowns) instead of guessing.
return {
  id = "use",
  title = "USE method",
  description = "For every resource: utilization (how busy), saturation (how much "
    .. "work waits), errors. Each cell is measured or listed as a known unknown.",
  order = 1,
  -- rows of the matrix, in this order
  resources = { "cpu", "memory", "disk", "network", "storage-controller", "network-controller",
    "fd", "task", "cgroup", "interconnect", "filesystem", "swap", "kernel-mutex", "user-mutex" },
  metrics = { "utilization", "saturation", "errors" },
  tags = { "default", "proc", "tracing" },
  not_applicable = {
    ["fd.saturation"] = "file descriptors do not queue: a full table fails at once (EMFILE/ENFILE, see errors)",
    ["task.saturation"] = "tasks do not queue for a pid or thread slot: fork fails at once (see errors)",
  },
}
