#!/bin/sh
# Makes the database role Gatehouse connects as, and its database, owned by it. The postgres
# image runs this once, as its superuser, when it initialises an empty data directory (see
# docker-compose.yml). The role is no superuser and may not create roles or databases: it owns
# its own database (and so the tables its migrations make) and nothing else, so a flaw in the
# server cannot reach the rest of the cluster or the machine through the database.
#
# Environment: POSTGRES_USER and POSTGRES_DB (the image's, to connect as the superuser),
# GATEHOUSE_DB_USER and GATEHOUSE_DB_NAME (default gatehouse), GATEHOUSE_DB_PASSWORD (required).
set -eu
: "${GATEHOUSE_DB_PASSWORD:?set GATEHOUSE_DB_PASSWORD, the password of the role Gatehouse connects as}"
psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -v role="${GATEHOUSE_DB_USER:-gatehouse}" -v database="${GATEHOUSE_DB_NAME:-gatehouse}" \
    -v password="$GATEHOUSE_DB_PASSWORD" <<'SQL'
CREATE ROLE :"role" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'password';
CREATE DATABASE :"database" OWNER :"role";
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
SQL
