--- Task errors: fork/clone failures (EAGAIN, ENOMEM). /proc keeps no count of them.
return {
  id = "use.task-errors",
  title = "Task creation errors",
  methodology = "use", resource = "task", metric = "errors",
  tags = { "default", "proc" },
  collect = {},

  run = function(ctx, args)
    ctx:unknown("fork_failures", "the kernel keeps no counter of failed fork/clone calls: "
      .. "seeing them needs syscall tracing of return codes (BPF), which this version does not collect")
  end,
}
