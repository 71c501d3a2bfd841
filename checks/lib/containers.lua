--- The containers and Kubernetes pods of the window (ctx.proc.containers(), from proc.cgroups):
-- which container a cgroup or a process is, named as its owners name it. The one place the
-- checks name a workload: the cgroup checks' rows, process-how's cgroups, container-who.
local containers = {}

--- The index of the window's containers, or nil, why (a check that declares proc.cgroups).
function containers.load(ctx)
  local list, why = ctx.proc.containers()
  if not list then return nil, why end
  return list
end

--- The container entry { label, container, pod, monitor } of a cgroup (a ctx.proc.cgroups()
-- entry, or its path), or nil.
function containers.of_cgroup(ix, cg)
  if not ix or not cg then return nil end
  return ix.cgroups[type(cg) == "table" and cg.path or cg]
end

--- The container entry of the process pid (the deepest container or pod cgroup that listed it).
function containers.of_pid(ix, pid)
  local path = ix and ix.pids[pid]
  return path and ix.cgroups[path] or nil
end

--- The label of a cgroup's workload ("pod shop/web-1, container nginx", "docker web"), or "-".
function containers.label(ix, cg)
  local e = containers.of_cgroup(ix, cg)
  return e and e.label or "-"
end

--- How a sentence names a cgroup: its workload's label where it is a container's or a pod's
-- ("pod shop/web-1, container nginx": its owners' words, not a path of 150 characters),
-- else name (its row name, cgroups.name).
function containers.describe(ix, cg, name)
  local e = containers.of_cgroup(ix, cg)
  if not e or not e.label or e.label == "" then return name end
  return e.label
end

--- The image of a cgroup's container, or nil.
function containers.image(ix, cg)
  local e = containers.of_cgroup(ix, cg)
  return e and e.container and e.container.image or nil
end

--- Why the containers of this window have no names, for a note (nil when they have, or none).
function containers.unnamed(ix)
  local n, why = 0, nil
  for _, c in ipairs(ix or {}) do
    if c.why then n, why = n + 1, why or (c.label .. ": " .. c.why) end
  end
  if n == 0 then return nil end
  return string.format("%d container%s without a name; %s", n, n == 1 and "" or "s", why)
end

--- The workload --container/--pod named (ctx.focus; the core decides what matches), as
-- { label, pids = { [pid] = true }, paths = { [cgroup path] = true } }; nil when no focus;
-- false, why when it matches nothing in this window.
function containers.focus(ctx, ix)
  local f = ctx.focus
  if not f then return nil end
  local asked = f.container and ("--container " .. f.container) or ("--pod " .. f.pod)
  if not ix then return false, asked .. ": no container information in this capture (proc.cgroups)" end
  local out = { pids = {}, paths = {}, label = nil }
  for path, e in pairs(ix.cgroups) do
    if e.focus then
      out.paths[path] = true
      if not out.label or #e.label < #out.label or (#e.label == #out.label and e.label < out.label) then
        out.label = e.label
      end
    end
  end
  if not next(out.paths) then
    return false, asked .. ": no container or pod of this window matches"
  end
  if f.pod then out.label = "pod " .. f.pod end
  for pid, path in pairs(ix.pids) do
    if out.paths[path] then out.pids[pid] = true end
  end
  return out
end

return containers
