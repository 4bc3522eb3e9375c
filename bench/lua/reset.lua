-- resetPassword for addresses of the imported users: g<k>@example.com, k at random below
-- BENCH_EMAILS (answered alike for known and unknown addresses; at most three mails an address an hour).
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local n
local q = 'mutation R($e: String!) { resetPassword(input: {email: $e}) { ok } }'
function setup(thread) c.setup(thread) end
function init(args) n = tonumber(os.getenv("BENCH_EMAILS")); math.randomseed(tid * 15485863 + os.time()) end
function request()
  local email = "g" .. math.random(0, n - 1) .. "@example.com"
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" },
    '{"query":"' .. q .. '","variables":{"e":"' .. email .. '"}}')
end
function response(status, headers, b) c.check(status, b, '{"data":{"resetPassword":{"ok":true}}}') end
function done(s, l, r) c.done(s, l, r) end
