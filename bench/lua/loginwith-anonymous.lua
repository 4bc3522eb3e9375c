-- logInWith as a guest: each request logs one of 1000 guest ids per thread in (made by the first
-- use), so every call writes a session row, as a refresh grant writes its next token.
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local query = 'mutation W($a: Object!) { logInWith(input: {authData: $a}) { viewer { sessionToken } } }'
function setup(thread) c.setup(thread) end
function init(args) math.randomseed(tid * 15485863 + os.time()) end
function request()
  local id = string.format("%08x-0000-4000-8000-%012x", tid, math.random(1000))
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" },
    '{"query":"' .. query .. '","variables":{"a":{"anonymous":{"id":"' .. id .. '"}}}}')
end
function response(status, headers, b) c.check(status, b, '"sessionToken":"r:') end
function done(s, l, r) c.done(s, l, r) end
