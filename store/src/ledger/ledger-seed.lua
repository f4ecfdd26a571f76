-- SEED (see redis-ledger.ts): a scope's spend from the usage events, unless seeded meanwhile.
if redis.call('HSETNX', KEYS[1], 'seeded', '1') == 1 then redis.call('HINCRBY', KEYS[1], 'spent', ARGV[1]) end
return 1
