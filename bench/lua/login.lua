-- logIn with correct passwords; run with -t = -c so each thread is one connection and its
-- X-Parse-Installation-Id is that connection's (same-installation sessions are replaced).
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local users, installation
function setup(thread) c.setup(thread) end
function init(args)
  users = c.load_users(); math.randomseed(tid * 104729 + os.time())
  installation = "bench-login-" .. tid
end
function request()
  local u = users[math.random(#users)]
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json", ["X-Parse-Installation-Id"] = installation }, c.login_body(u))
end
function response(status, headers, b) c.check(status, b, '"sessionToken":"r:') end
function done(s, l, r) c.done(s, l, r) end
