#!/bin/sh
# The cluster profile's primary (docker-compose.yml) lets the replica stream from it.
echo "host replication spendgate all scram-sha-256" >> "$PGDATA/pg_hba.conf"
