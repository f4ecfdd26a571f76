-- RESERVE (see redis-ledger.ts): holds a reservation, or a lease, on every scope at once.
local reservationId, amount, ttlMs = ARGV[1], ARGV[2], tonumber(ARGV[3])
local scopeCount = (#KEYS - 1) / 2
local function admitted()
  local reply = {1}
  for i = 1, scopeCount do
    local balance = redis.call('HMGET', KEYS[2 * i], 'spent', 'reserved')
    reply[2 * i] = balance[1] or '0'
    reply[2 * i + 1] = balance[2] or '0'
  end
  reply[2 * scopeCount + 2] = amount
  return reply
end
local unseeded = {2}
for i = 1, scopeCount do
  if ARGV[4 + scopeCount + i] == '1' and redis.call('HEXISTS', KEYS[2 * i], 'seeded') == 0 then
    unseeded[#unseeded + 1] = i
  end
end
if #unseeded > 1 then return unseeded end
local now = nowMs()
for i = 1, scopeCount do dropExpiredHolds(KEYS[2 * i], KEYS[2 * i + 1], now) end
if redis.call('EXISTS', KEYS[1]) == 1 then return admitted() end
local wanted = ARGV[5 + 2 * scopeCount]
local holdMs = ttlMs
if wanted then
  holdMs = tonumber(ARGV[7 + 2 * scopeCount])
  local size, share = tonumber(wanted), tonumber(ARGV[6 + 2 * scopeCount])
  for i = 1, scopeCount do
    local limit = ARGV[4 + i]
    if limit ~= '' then
      local balance = redis.call('HMGET', KEYS[2 * i], 'spent', 'reserved')
      local headroom = tonumber(limit) - tonumber(balance[1] or '0') - tonumber(balance[2] or '0')
      size = math.min(size, math.floor(headroom / share))
    end
  end
  if size > tonumber(amount) then amount = string.format('%d', size) end
end
for i = 1, scopeCount do
  local scopeKey = KEYS[2 * i]
  local limit = ARGV[4 + i]
  if limit ~= '' then
    local balance = redis.call('HMGET', scopeKey, 'spent', 'reserved')
    local spent, reserved = balance[1] or '0', balance[2] or '0'
    if tonumber(spent) + tonumber(reserved) + tonumber(amount) > tonumber(limit) then
      return {0, i, spent, reserved}
    end
  end
end
local expiresAt = string.format('%d', now + holdMs)
for i = 1, scopeCount do
  local scopeKey = KEYS[2 * i]
  redis.call('HINCRBY', scopeKey, 'reserved', amount)
  redis.call('HSET', scopeKey, 'hold:' .. reservationId, amount)
  redis.call('ZADD', KEYS[2 * i + 1], expiresAt, reservationId)
end
redis.call('SET', KEYS[1], ARGV[4], 'PX', string.format('%d', 2 * ttlMs))
return admitted()
