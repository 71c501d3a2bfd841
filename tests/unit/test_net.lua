-- Cases for checks/lib/net.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local net = require("net")

local is = tap.is

is(net.stacked("bond"), true, "a bond is stacked")
is(net.stacked("veth"), false, "a veth is not")
is(net.stacked(nil), false, "no kind: not stacked")

-- interfaces: loopback left out by name and by type, sorted
local ctx = { proc = {
  netdev = function() return { lo = 1, eth1 = 2, eth0 = 3, lo2 = 4 } end,
  interfaces = function() return { lo2 = { type = 772 }, eth0 = { type = 1 } } end,
} }
local l = net.interfaces(ctx)
is(#l, 2, "lo and a second loopback left out")
is(l[1].name .. "," .. l[2].name, "eth0,eth1", "sorted by name")
is(l[2].info.type, nil, "an interface without info gets an empty table")
local none, why = net.interfaces({ proc = { netdev = function() return nil, "no /proc/net/dev" end } })
is(none == nil and why, "no /proc/net/dev", "no netdev: nil and why")

-- no_capacity: a physical NIC has one; a veth, a bridge without a device, an unknown-speed bond not
local links = {
  eth0 = { ifindex = 2 }, eth1 = { ifindex = 3, master = 5 }, eth2 = { ifindex = 4, master = 5 },
  bond0 = { ifindex = 5, kind = "bond" }, veth1 = { ifindex = 6, kind = "veth" },
}
local ifs = { eth1 = { speed_mbps = 1000 }, eth2 = {}, bond0 = { speed_reason = "no carrier" } }
is(net.no_capacity("eth0", links, nil, {}, ifs), nil, "a physical device: its speed is a capacity")
is(net.no_capacity("bond0", links, nil, { speed_mbps = 2000 }, ifs), nil, "a bond with a speed: a capacity")
local b = net.no_capacity("bond0", links, nil, ifs.bond0, ifs)
tap.ok(b and b:find("a bond without a known speed: no carrier; its ports eth1 (1000 Mb/s), eth2 (speed unknown)", 1, true),
  "a bond without a speed: its ports named, in order")
tap.ok((net.no_capacity("veth1", links, nil, {}, ifs) or ""):find("^virtual link %(veth%)"), "a veth: virtual")
tap.ok((net.no_capacity("br0", nil, { br0 = { kind = "none", stacked_on = {} } }, {}, ifs) or ""):find("no device behind it", 1, true),
  "no link info, no device behind it: virtual")
is(net.no_capacity("eth9", nil, nil, nil, nil), nil, "nothing known: may be a capacity")
