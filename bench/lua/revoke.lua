-- revokeOtherSessions with the seeded users' tokens (each keeps its own session).
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local users
local body = '{"query":"mutation { revokeOtherSessions(input: {}) { revoked } }"}'
function setup(thread) c.setup(thread) end
function init(args) users = c.load_users(); math.randomseed(tid * 32452843 + os.time()) end
function request()
  local u = users[math.random(#users)]
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json", ["X-Parse-Session-Token"] = u.token }, body)
end
function response(status, headers, b) c.check(status, b, '{"data":{"revokeOtherSessions":{"revoked":') end
function done(s, l, r) c.done(s, l, r) end
