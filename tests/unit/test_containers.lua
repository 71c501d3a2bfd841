-- Cases for checks/lib/containers.lua, run in the checks' sandbox by test_checks_lib.c:
-- how a cgroup, a process and the workload --container/--pod asked for are found in
-- ctx.proc.containers()'s index (its shape: docs/writing-a-check.md).
local tap = ...
local containers = require("containers")

local is = tap.is

local pod = { uid = "u1", namespace = "shop", name = "web-1", label = "pod shop/web-1" }
local nginx = { id = string.rep("a1", 32), label = "pod shop/web-1, container nginx", image = "nginx:1.25",
  k8s_container = "nginx", pod = pod }
local web = { id = string.rep("b2", 32), label = "docker web", name = "web" }
local ix = {
  nginx, web,
  pods = { pod },
  cgroups = {
    ["/kubepods/pod-u1"] = { label = "pod shop/web-1", pod = pod, monitor = false },
    ["/kubepods/pod-u1/a1"] = { label = nginx.label, container = nginx, pod = pod, monitor = false, focus = true },
    ["/docker/b2"] = { label = "docker web", container = web, monitor = false },
  },
  pids = { [10] = "/kubepods/pod-u1/a1", [20] = "/docker/b2" },
  names = true,
}

is(containers.label(ix, { path = "/docker/b2" }), "docker web", "a cgroup's label, from its ctx.proc.cgroups() entry")
is(containers.label(ix, "/kubepods/pod-u1"), "pod shop/web-1", "a pod's own cgroup, by path")
is(containers.label(ix, "/system.slice/sshd.service"), "-", "a service is no container's")
is(containers.label(nil, "/docker/b2"), "-", "no index (no proc.cgroups): no label")
is(containers.of_pid(ix, 20).container, web, "a process's container")
is(containers.of_pid(ix, 30), nil, "a process in no container")
is(containers.describe(ix, "/kubepods/pod-u1/a1", "/kubepods/pod-u1/a1"), nginx.label,
  "a sentence names a container by its label, not its path")
is(containers.describe(ix, "/system.slice/cron.service", "/system.slice/cron.service"), "/system.slice/cron.service",
  "and any other cgroup by its row name")
is(containers.image(ix, "/kubepods/pod-u1/a1"), "nginx:1.25", "its image")
is(containers.image(ix, "/docker/b2"), nil, "an image unknown is nil")
is(containers.unnamed(ix), nil, "every container named: no note")
local ix2 = { { label = "containerd 3f2a1b9c0d1e", why = "no state of its runtime names it" }, pods = {}, cgroups = {}, pids = {} }
is(containers.unnamed(ix2), "1 container without a name; containerd 3f2a1b9c0d1e: no state of its runtime names it",
  "an unnamed one says why")

-- the workload asked for: the core marks its cgroups (focus), the lib gathers them
is(containers.focus({}, ix), nil, "no --container, no --pod: no focus")
local f = containers.focus({ focus = { container = "nginx" } }, ix)
is(f and f.label, nginx.label, "--container: the workload's label")
is(f and f.pids[10], true, "its processes")
is(f and f.pids[20], nil, "not the others'")
local fp = containers.focus({ focus = { pod = "shop/web-1" } }, ix)
is(fp and fp.label, "pod shop/web-1", "--pod: named as the pod")
local none, why = containers.focus({ focus = { container = "db" } }, { pods = {}, cgroups = {}, pids = {} })
is(none, false, "a name that matches nothing: false")
is(why, "--container db: no container or pod of this window matches", "and why")
local _, why2 = containers.focus({ focus = { pod = "a/b" } }, nil)
is(why2, "--pod a/b: no container information in this capture (proc.cgroups)", "no index: why")
