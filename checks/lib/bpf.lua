--- Helpers over a BPF tool's info (the second value of ctx.bpf.<tool>()).
local bpf = {}

--- Seconds the tool traced: it attaches before the window and is read after it, so the span
-- it saw (traced_to_s - traced_from_s) is a little more than the window. When the info has
-- no positive span (the tool did not run: info is the reason, a string) the window's
-- seconds stand in. Never below 1e-9, so a rate over it is always defined.
function bpf.traced_s(ctx, info)
  local s = type(info) == "table" and info.traced_to_s and info.traced_from_s
    and info.traced_to_s - info.traced_from_s
  if not s or s <= 0 then s = ctx.window.seconds or 0 end
  return math.max(s, 1e-9)
end

return bpf
