-- signUp of fresh users (unique names per thread and run).
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local n, run = 0, ""
local q = 'mutation S($f: CreateUserFieldsInput) { signUp(input: {fields: $f}) { viewer { sessionToken user { objectId } } } }'
function setup(thread) c.setup(thread) end
function init(args) run = (os.getenv("BENCH_RUN") or tostring(os.time())) .. "t" .. tid end
function request()
  n = n + 1
  local name = "s" .. run .. "n" .. n
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" },
    '{"query":"' .. q .. '","variables":{"f":{"username":"' .. name .. '","password":"pw-' .. name .. '-x"}}}')
end
function response(status, headers, b) c.check(status, b, '"sessionToken":"r:') end
function done(s, l, r) c.done(s, l, r) end
