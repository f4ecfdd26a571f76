-- READ (see redis-ledger.ts): a scope's spent and reserved, expired holds dropped.
if ARGV[1] == '1' and redis.call('HEXISTS', KEYS[1], 'seeded') == 0 then return {} end
dropExpiredHolds(KEYS[1], KEYS[2], nowMs())
return redis.call('HMGET', KEYS[1], 'spent', 'reserved')
