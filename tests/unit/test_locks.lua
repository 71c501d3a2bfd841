-- Cases for checks/lib/locks.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local locks = require("locks")

local is = tap.is

-- a 49 Hz profile: folded stacks, comm first, kernel frames with _[k]
local d = { kernel_symbols = "ok", total = 400, samples = 800, stacks = {
  { tgid = 20, comm = "mysqld", count = 30,
    folded = "mysqld;do_syscall_64_[k];__x64_sys_futex_[k];futex_wait_[k]" },
  { tgid = 10, comm = "dd", count = 30,
    folded = "dd;vfs_write_[k];ext4_buffered_write_iter_[k];__mutex_lock_[k];mutex_spin_on_owner_[k]" },
  { tgid = 10, comm = "dd", count = 10,
    folded = "dd;ksys_write_[k];queued_spin_lock_slowpath_[k]" },
  { tgid = 11, comm = "dd", count = 40,
    folded = "dd;rwsem_down_write_slowpath_[k]" },
  { tgid = 30, comm = "my_futex", count = 99, folded = "my_futex;futex_user_function" },
} }

local s = locks.samples(d, locks.kernel_slow)
is(s.samples, 80, "samples in a kernel lock's slow path")
is(#s.procs, 2, "two processes")
is(s.procs[1].pid, 10, "a tie at 40 samples: the lower pid first")
is(#s.stacks, 3, "the matching stacks")
is(s.busy .. "/" .. s.all, "400/800", "the profile's busy and all samples")
local f = locks.samples(d, locks.futex)
is(f.samples, 30, "futex: kernel frames only, a user function named futex does not count")
local none, why = locks.samples({ kernel_symbols = "no kallsyms" }, locks.futex)
is(none == nil and why, "kernel frames are not symbolized: no kallsyms", "unsymbolized: nil and why")
is(locks.samples({ kernel_symbols = "ok" }, locks.futex).samples, 0, "no stacks: 0 samples")

is(locks.tail("dd;a;b;c", 2), "b < c", "tail: the last frames")
is(locks.tail("dd;a", 5), "a", "tail: never the comm")
is(locks.tail(nil, 3), "", "tail of nil: empty")
