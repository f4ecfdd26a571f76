-- The sliding window every rate-limit script starts with (see redis-rate-limiter.ts).
-- SLOTS, the window's buckets + 1, is defined before it by redis-rate-limiter.ts.
local function fmt(number)
  return string.format('%d', number)
end

local function nowMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- Moves the window to now (never back). Returns the bucket it is at, the totals of
-- requests and tokens, and the newest bucket with tokens (nil if none).
local function advance(key, bucketMs, now)
  local bucket = math.floor(now / bucketMs)
  local state = redis.call('HMGET', key, 'last', 'requests', 'tokens', 'lastTokens')
  local last = tonumber(state[1])
  if not last then return bucket, 0, 0, nil end
  local requests, tokens, lastTokens = tonumber(state[2]) or 0, tonumber(state[3]) or 0, tonumber(state[4])
  if bucket <= last then return last, requests, tokens, lastTokens end
  if bucket - last >= SLOTS then
    redis.call('DEL', key)
    return bucket, 0, 0, nil
  end
  local fields = {}
  for passed = last + 1, bucket do
    fields[#fields + 1] = 'r' .. (passed % SLOTS)
    fields[#fields + 1] = 't' .. (passed % SLOTS)
  end
  local counts = redis.call('HMGET', key, unpack(fields))
  for i = 1, #fields, 2 do
    requests = requests - (tonumber(counts[i]) or 0)
    tokens = tokens - (tonumber(counts[i + 1]) or 0)
  end
  redis.call('HDEL', key, unpack(fields))
  redis.call('HSET', key, 'last', fmt(bucket), 'requests', fmt(requests), 'tokens', fmt(tokens))
  return bucket, requests, tokens, lastTokens
end

-- When the oldest buckets holding at least `needed` of the counts named `kind` ('r'
-- or 't') have left the window.
local function freedAt(key, kind, current, needed, bucketMs)
  local oldest = current - SLOTS + 1
  local fields = {}
  for bucket = oldest, current do fields[#fields + 1] = kind .. (bucket % SLOTS) end
  local counts = redis.call('HMGET', key, unpack(fields))
  local freed = 0
  for i = 1, #fields do
    freed = freed + (tonumber(counts[i]) or 0)
    if freed >= needed then return (oldest + i - 1 + SLOTS) * bucketMs end
  end
  return (current + SLOTS) * bucketMs
end
