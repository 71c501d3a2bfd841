-- luacheck configuration for the Lua sonde runs: checks/ (and checks/lib),
-- methodologies/ and ranking/. `make check` runs it (tests/sandbox/luacheck.t).

-- The sandbox's environment (core/lua/sandbox.c), and nothing more: Lua 5.4's
-- base functions less dofile, loadfile, print, collectgarbage; string without
-- dump; os with the clock functions only; units (numbers for people); no io, debug,
-- package or coroutine.
stds.sonde = {
  read_globals = {
    "_VERSION", "assert", "error", "getmetatable", "ipairs", "load", "next", "pairs", "pcall",
    "rawequal", "rawget", "rawlen", "rawset", "require", "select", "setmetatable", "tonumber",
    "tostring", "type", "xpcall",
    string = { fields = {
      "byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match", "pack",
      "packsize", "rep", "reverse", "sub", "unpack", "upper",
    } },
    table = { fields = { "concat", "insert", "move", "pack", "remove", "sort", "unpack" } },
    math = { fields = {
      "abs", "acos", "asin", "atan", "ceil", "cos", "deg", "exp", "floor", "fmod", "huge", "log",
      "max", "maxinteger", "min", "mininteger", "modf", "pi", "rad", "random", "randomseed", "sin",
      "sqrt", "tan", "tointeger", "type", "ult",
    } },
    utf8 = { fields = { "char", "charpattern", "codepoint", "codes", "len", "offset" } },
    os = { fields = { "clock", "date", "difftime", "time" } },
    units = { fields = { "num", "range", "value" } },
  },
}
std = "sonde"

-- Globals are closed in the sandbox: no file may set one.
allow_defined = false
allow_defined_top = false
-- Checks carry long sentences (summaries, reasons, notes) on one line each, so
-- that a message reads as it prints; line length is left to review.
max_line_length = false

-- run(ctx, args) is every check's signature (docs/writing-a-check.md): a check
-- without arguments keeps it, so an unused `args` is the contract, not a slip.
ignore = { "212/args" }

-- methodologies/ and ranking/ are data: the catalog runs them once, in the
-- same sandbox, for the table they return; they need none of its functions.
files["methodologies/"] = { std = "none" }
files["ranking/"] = { std = "none" }
