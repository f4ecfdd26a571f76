-- FINISH (see redis-ledger.ts): settles a reservation at its actual cost, or releases it.
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
if stored ~= ARGV[2] then return -1 end
local reservationId, actual = ARGV[1], ARGV[3]
local now = nowMs()
for i = 1, (#KEYS - 1) / 2 do
  local scopeKey, expiryKey = KEYS[2 * i], KEYS[2 * i + 1]
  dropExpiredHolds(scopeKey, expiryKey, now)
  freeHold(scopeKey, reservationId)
  redis.call('ZREM', expiryKey, reservationId)
  if actual ~= '' then redis.call('HINCRBY', scopeKey, 'spent', actual) end
end
redis.call('DEL', KEYS[1])
return 1
