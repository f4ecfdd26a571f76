-- UPDATE_LEASE (see redis-ledger.ts and redis-leases.ts): a lease's settled spend and hold.
local function greater(a, b)
  if #a ~= #b then return #a > #b end
  return a > b
end
if redis.call('EXISTS', KEYS[1]) == 0 then return {0} end
local leaseId, settled, hold, finishing = ARGV[1], ARGV[2], ARGV[3], ARGV[4] == '1'
local counted = redis.call('GET', KEYS[2]) or '0'
local spends = greater(settled, counted)
local field = 'hold:' .. leaseId
local now = nowMs()
local scopeCount = (#KEYS - 2) / 2
local reply = {1}
local holding = 0
for i = 1, scopeCount do
  local scopeKey, expiryKey = KEYS[2 * i + 1], KEYS[2 * i + 2]
  dropExpiredHolds(scopeKey, expiryKey, now)
  if spends then
    redis.call('HINCRBY', scopeKey, 'spent', settled)
    if counted ~= '0' then redis.call('HINCRBY', scopeKey, 'spent', '-' .. counted) end
  end
  if finishing then
    freeHold(scopeKey, leaseId)
    redis.call('ZREM', expiryKey, leaseId)
  else
    local held = redis.call('HGET', scopeKey, field)
    if held then holding = 1 end
    if held and greater(held, hold) then
      redis.call('HINCRBY', scopeKey, 'reserved', hold)
      redis.call('HINCRBY', scopeKey, 'reserved', '-' .. held)
      redis.call('HSET', scopeKey, field, hold)
    end
    redis.call('ZADD', expiryKey, 'XX', string.format('%d', now + tonumber(ARGV[5])), leaseId)
  end
  local balance = redis.call('HMGET', scopeKey, 'spent', 'reserved')
  reply[2 * i] = balance[1] or '0'
  reply[2 * i + 1] = balance[2] or '0'
end
reply[2 * scopeCount + 2] = holding
if finishing then
  redis.call('DEL', KEYS[1], KEYS[2])
else
  if spends then redis.call('SET', KEYS[2], settled) end
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
  redis.call('PEXPIRE', KEYS[2], ARGV[6])
end
return reply
