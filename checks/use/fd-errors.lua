--- File descriptor errors: EMFILE/ENFILE failures. /proc keeps no count of them.
return {
  id = "use.fd-errors",
  title = "File descriptor errors",
  methodology = "use", resource = "fd", metric = "errors",
  tags = { "default", "proc" },
  collect = {},

  run = function(ctx, args)
    ctx:unknown("emfile_enfile_errors", "the kernel keeps no counter of EMFILE/ENFILE failures: "
      .. "seeing them needs syscall tracing of return codes (BPF), which this version does not collect")
  end,
}
