-- logIn with a wrong password: for a seeded user's name (BENCH_WRONG=known, the default) or for
-- a name no account has (BENCH_WRONG=unknown). Success is the 101 answer both get.
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local users, known
function setup(thread) c.setup(thread) end
function init(args)
  users = c.load_users(); math.randomseed(tid * 104729 + os.time())
  known = os.getenv("BENCH_WRONG") ~= "unknown"
end
function request()
  local u = users[math.random(#users)]
  local name = known and u.name or ("nobody-" .. u.name)
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, c.login_body({ name = name, pass = "wrong-" .. u.pass }))
end
function response(status, headers, b)
  -- `ok` is common.lua's count of expected answers (a global each thread keeps).
  if status == 200 and b:find('"code":101', 1, true) then ok = ok + 1 else c.fail(status, b) end
end
function done(s, l, r) c.done(s, l, r) end
