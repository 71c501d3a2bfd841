-- Cases for checks/lib/waits.lua, run in the checks' sandbox by test_checks_lib.c:
-- what each wait is (a class and its words) from what the capture says, and the
-- evidence that tells a contended wait from an idle one.
local tap = ...
local waits = require("waits")

local is = tap.is

local function class(w, opts) return (waits.classify(w, opts)) end

-- 1. threads in D: the kernel stack says where, in order (a fault on the disk is memory)
is(class { state = "D", kstack = "percpu_rwsem_wait<mnt_want_write<path_openat<do_filp_open" }, "filesystem",
  "D in percpu_rwsem_wait under mnt_want_write: a frozen file system")
is(select(2, waits.classify { state = "D", kstack = "percpu_rwsem_wait<__sb_start_write<vfs_write" }),
  "a frozen file system (percpu_rwsem_wait)", "... named, with the frame that says it")
is(class { state = "D", kstack = "percpu_rwsem_wait<__percpu_down_read<cgroup_attach_lock" }, "kernel-lock",
  "a percpu rwsem that is not a superblock's: a kernel lock")
is(class { state = "D", iowait = true, kstack = "folio_wait_bit_common<filemap_fault<__do_fault<do_fault" }, "memory",
  "a page fault waiting on the disk is memory")
is(class { state = "D", kstack = "shrink_node<do_try_to_free_pages<try_to_free_mem_cgroup_pages" }, "memory",
  "direct reclaim is memory")
is(class { state = "D", iowait = true, kstack = "swap_read_folio<do_swap_page<handle_mm_fault" }, "memory",
  "swap-in is memory")
is(class { state = "D", kstack = "rwsem_down_write_slowpath<down_write<do_truncate" }, "kernel-lock",
  "an inode's rwsem: a kernel lock")
is(class { state = "D", kstack = "__mutex_lock<mutex_lock<some_driver_ioctl" }, "kernel-lock", "a kernel mutex")
is(class { state = "D", kstack = "balance_dirty_pages<balance_dirty_pages_ratelimited_flags<generic_perform_write" },
  "filesystem", "writeback throttling is the file system's")
is(class { state = "D", kstack = "jbd2_log_wait_commit<ext4_sync_file<vfs_fsync_range" }, "filesystem",
  "waiting for the journal")
is(class { state = "D", iowait = true, kstack = "folio_wait_bit_common<folio_wait_writeback<__filemap_fdatawait_range" },
  "disk", "waiting for writeback I/O to complete: the disk")
is(class { state = "D", iowait = true, kstack = "" }, "disk", "D in iowait without a stack: the disk")
is(class { state = "D", kstack = "" }, "other", "D, no stack, no iowait: named as such, not guessed")
is(class { state = "D", kstack = "rpc_wait_bit_killable<__rpc_execute<nfs4_run_open_task" }, "filesystem",
  "an NFS call is the file system's (a network file system)")

-- 2. syscalls and the file behind their fd
local listen = { listen_ports = { [5432] = true } }
is(class({ state = "S", syscall = "recvfrom", object = "tcp 127.0.0.1:40000>127.0.0.1:5432 ESTABLISHED" }, listen),
  "network", "a client reading from the peer it connected to: network")
local c, what, peer = waits.classify({ state = "S", syscall = "read", object = "tcp 10.0.0.1:40000>10.0.0.5:5432 ESTABLISHED" }, listen)
is(peer, "10.0.0.5:5432", "... the peer is the backend's address")
is(what, "replies from 10.0.0.5:5432", "... and the wait says so")
is(class({ state = "S", syscall = "recvfrom", object = "tcp 127.0.0.1:5432>127.0.0.1:40000 ESTABLISHED" }, listen),
  "idle", "the server side of a connection waits for its client's next request: idle")
is(class({ state = "S", syscall = "recvfrom", object = "tcp 10.0.0.1:80>10.0.0.9:51234 ESTABLISHED" }, {}),
  "idle", "without the listeners: a local port below the ephemeral range, a peer in it: a server, idle")
is(class({ state = "S", syscall = "connect", object = "tcp 10.0.0.1:40000>10.0.0.5:5432 SYN_SENT" }, listen),
  "network", "connect: network")
is(class({ state = "S", syscall = "poll", pollfd = true, object = "tcp 10.0.0.1:40000>10.0.0.5:5432 ESTABLISHED" }, listen),
  "network", "poll on a client socket (its first fd): network")
is(class({ state = "S", syscall = "poll" }), "idle", "poll without a named fd: idle")
is(class({ state = "S", syscall = "accept4", object = "tcp 0.0.0.0:80 LISTEN q=0" }), "idle", "accept on an empty queue: idle")
for _, sc in ipairs({ "epoll_wait", "epoll_pwait", "select", "pselect6", "nanosleep", "clock_nanosleep", "wait4", "pause" }) do
  is(class({ state = "S", syscall = sc }), "idle", sc .. ": idle")
end
is(class({ state = "S", syscall = "read", object = "pipe" }), "ipc", "a pipe: pipes and IPC")
is(class({ state = "S", syscall = "read", object = "unix stream" }), "ipc", "a unix socket: pipes and IPC")
is(class({ state = "S", syscall = "read", object = "anon [eventfd]" }), "idle", "an eventfd: idle")
is(class({ state = "S", syscall = "read", object = "chr" }), "idle", "a terminal: idle")
is(class({ state = "S", syscall = "flock" }), "user-lock", "flock: a user lock")
is(class({ state = "S", syscall = "semtimedop" }), "user-lock", "a SysV semaphore: a user lock")
is(class({ state = "S", syscall = "futex", futex = { addr = "0x1", cmd = "WAIT", val2 = true } }), "user-lock",
  "FUTEX_WAIT expecting 2: a contended glibc mutex")
is(class({ state = "S", syscall = "futex", futex = { addr = "0x1", cmd = "LOCK_PI", val2 = false } }), "user-lock",
  "a PI lock")
is(class({ state = "S", syscall = "futex", futex = { addr = "0x1", cmd = "WAIT_BITSET", val2 = false } }), "futex",
  "a condition variable: decided by the evidence")
is(class({ state = "S", syscall = "?" }), "unknown", "a syscall this host did not show: unknown, not blocked")
is(class({ state = "T" }), "stopped", "stopped")
is(class({ state = "?" }), "unknown", "time no sample named")

-- 3. a futex wait without a lock's signature: contended or idle, by the evidence
local window = 4
local function proc(w, extra)
  local p = { pid = 1, comm = "x", threads = 8, oncpu_s = 3.6, runq_s = 0.2, waits = { w }, run_max = 1 }
  for k, v in pairs(extra or {}) do p[k] = v end
  return p
end
local cond = { state = "S", syscall = "futex", futex = { addr = "0x10", cmd = "WAIT_BITSET", val2 = false } }
local function with(t) local w = {} for k, v in pairs(cond) do w[k] = v end for k, v in pairs(t) do w[k] = v end return w end
local queued = with { s = 24, parked_s = 0, wakes = 2400, threads = 7 }
tap.ok(waits.futex_contended(proc(queued), queued, window),
  "7 threads queued on one futex, woken 100 times a second each, one on a CPU at a time: contended")
local parked = with { s = 28, parked_s = 28, wakes = 0, threads = 7 }
tap.ok(not waits.futex_contended(proc(parked, { oncpu_s = 0, runq_s = 0 }), parked, window),
  "a pool parked on its condition variable, never woken: idle")
local rare = with { s = 24, parked_s = 0, wakes = 40, threads = 7 }
tap.ok(not waits.futex_contended(proc(rare), rare, window), "woken rarely (less than 10 a second each): idle")
local parallel = with { s = 24, parked_s = 0, wakes = 2400, threads = 7 }
tap.ok(not waits.futex_contended(proc(parallel, { oncpu_s = 8, run_max = 3 }), parallel, window),
  "several of its threads run at once: not serialised, not contended")
local one = with { s = 4, parked_s = 0, wakes = 400, threads = 1 }
tap.ok(not waits.futex_contended(proc(one, { threads = 2 }), one, window), "one waiter: no queue")

-- 4. a process's time by class; idle never counts as busy
local p = { pid = 7, comm = "app", threads = 3, oncpu_s = 1, runq_s = 0.5, unsampled_s = 0, waits = {
  { state = "S", syscall = "futex", futex = { addr = "0x1", cmd = "WAIT", val2 = true }, s = 6, parked_s = 0, wakes = 600, threads = 2 },
  { state = "S", syscall = "epoll_wait", s = 4, parked_s = 4, wakes = 0, threads = 1 },
  { state = "S", syscall = "read", object = "pipe", s = 2, parked_s = 2, wakes = 0, threads = 1 },
} }
local a = waits.process(p, 4, {})
is(a.classes["user-lock"], 6, "the lock's 6 s are user-lock time")
is(a.classes.idle, 6, "epoll and a pipe that never woke are idle (4 + 2 s)")
is(a.busy_s, 7.5, "busy: on CPU, runnable and the lock, not the idle waits")
is(a.by["user-lock"][1].what, "futex 0x1 (a contended mutex)", "the lock's wait is named")
local r = { p = p, a = a, class = "user-lock", share = 6 / 7.5 }
is(waits.sentence(r), "3 threads of app (pid 7): 80% of their time waiting on futex 0x1 (a contended mutex)",
  "the finding's sentence")
p.run_max = 1
is(waits.sentence(r), "3 threads of app (pid 7): 80% of their time waiting on futex 0x1 (a contended mutex); at most one runs at a time",
  "... with 'at most one runs at a time' when the sampler saw so")
local s = waits.socket("tcp [::1]:40000>[::1]:5432 ESTABLISHED")
is(s.peer, "[::1]:5432", "an IPv6 peer")
is(s.lport, 40000, "... and its local port")

-- the resolution note says when a big host's middle rounds were skipped for their cost
local th = { source = "bpf_iter_task", interval_s = 1, rounds = 11, sampler = "none" }
tap.ok(not waits.resolution(th):find("skipped"), "no round skipped: not said")
th.rounds_skipped = 4
tap.ok(waits.resolution(th):find("4 middle rounds skipped for their cost", 1, true),
  "4 rounds skipped: said, with why: " .. waits.resolution(th))
th.rounds_skipped = 1
tap.ok(waits.resolution(th):find("1 middle round skipped for its cost", 1, true), "one: the singular")
