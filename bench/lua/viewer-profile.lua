-- viewer.lua's viewer selecting the profile too: displayName, photoURL and three declared fields
-- (bench/user-fields.graphql), with the tokens of users that have them all set.
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local users
local body = '{"query":"{ viewer { user { username displayName photoURL bio newsletter plan } } }"}'
function setup(thread) c.setup(thread) end
function init(args) users = c.load_users(); math.randomseed(tid * 7919 + os.time()) end
function request()
  local u = users[math.random(#users)]
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json", ["X-Parse-Session-Token"] = u.token }, body)
end
function response(status, headers, b) c.check(status, b, '"plan":"PRO"}}}}') end
function done(s, l, r) c.done(s, l, r) end
