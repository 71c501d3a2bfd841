-- Cases for checks/lib/syscount.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local syscount = require("syscount")

local is = tap.is

-- what syscount records (docs/bpf-tools.md): per syscall and per process, errno by errno
local d = {
  errors_by_syscall = {
    { id = 2, name = "open", errno = 24, errno_name = "EMFILE", count = 40 },
    { id = 0, name = "read", errno = 11, errno_name = "EAGAIN", count = 900 },
    { id = 257, name = "openat", errno = 23, errno_name = "ENFILE", count = 2 },
  },
  process_errors = {
    { pid = 10, comm = "java", id = 2, name = "open", errno = 24, errno_name = "EMFILE", count = 30 },
    { pid = 11, comm = "java", id = 257, name = "openat", errno = 24, errno_name = "EMFILE", count = 5 },
    { pid = 12, comm = "nginx", id = 2, errno = 24, count = 5 },
    { pid = 10, comm = "java", id = 257, name = "openat", errno = 23, errno_name = "ENFILE", count = 2 },
    { pid = 13, comm = "redis", id = 0, name = "read", errno = 11, errno_name = "EAGAIN", count = 900 },
  },
}
local function fd_errors(e) return e.errno == 24 or e.errno == 23 end

is(syscount.total(d, fd_errors), 42, "total: EMFILE and ENFILE summed over syscalls")
is(syscount.total({}, fd_errors), 0, "no errors_by_syscall: 0")

local order, rows = syscount.by_process(d, fd_errors, 3)
is(#order, 3, "three processes by pid")
is(order[1].pid == 10 and order[1].count, 32, "pid 10 first, its two rows summed")
is(#rows, 3, "rows stop at top")
is(rows[3][3], "#2", "a syscall without a name: its number")
is(rows[3][4], "24", "an errno without a name: its number")
local by_comm = syscount.by_process(d, fd_errors, 10, true)
is(#by_comm, 2, "by comm: java and nginx")
is(by_comm[1].comm == "java" and by_comm[1].count, 37, "java's three rows summed")
local none, nrows = syscount.by_process({}, fd_errors, 5)
is(#none + #nrows, 0, "no process_errors: nothing")

local notes = {}
local ctx = { note = function(_, s) notes[#notes + 1] = s end }
syscount.drops_note(ctx, { drops = 0 })
syscount.drops_note(ctx, nil)
is(#notes, 0, "no drops, or no info: no note")
syscount.drops_note(ctx, { drops = 7 })
is(notes[1], "syscount lost 7 map entries (full maps): failures may be undercounted", "drops: the note")
