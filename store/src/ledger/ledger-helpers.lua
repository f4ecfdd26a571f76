-- Helpers every ledger script but SPEND and SEED starts with (see redis-ledger.ts): the
-- Redis server's clock, and freeing a reservation's hold on a scope, expired ones first.
local function nowMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

local function freeHold(scopeKey, reservationId)
  local field = 'hold:' .. reservationId
  local amount = redis.call('HGET', scopeKey, field)
  if amount then
    if amount ~= '0' then redis.call('HINCRBY', scopeKey, 'reserved', '-' .. amount) end
    redis.call('HDEL', scopeKey, field)
  end
end

local function dropExpiredHolds(scopeKey, expiryKey, now)
  local upTo = string.format('%d', now)
  local expired = redis.call('ZRANGEBYSCORE', expiryKey, '-inf', upTo)
  for _, reservationId in ipairs(expired) do freeHold(scopeKey, reservationId) end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', expiryKey, '-inf', upTo) end
end
