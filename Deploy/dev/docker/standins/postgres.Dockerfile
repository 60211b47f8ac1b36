# Stand-in for the official postgres:15: Debian 12's PostgreSQL 15 behind an entrypoint that keeps the official image's
# contract (POSTGRES_PASSWORD, POSTGRES_USER, POSTGRES_DB; PGDATA initialised on first start; password auth from the
# network; pg_isready; a fast, clean shutdown on `docker stop`).
FROM custodian-standin/bookworm-minbase
RUN export DEBIAN_FRONTEND=noninteractive \
    && mkdir -p /etc/postgresql-common/createcluster.d \
    && echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/no-main.conf \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends postgresql-15 postgresql-client-15 gosu \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o postgres -g postgres -m 2777 /var/run/postgresql \
    && install -d -o postgres -g postgres -m 0700 /var/lib/postgresql/data
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
ENTRYPOINT ["docker-entrypoint.sh"]
# The official image's choice: SIGINT is PostgreSQL's fast shutdown (SIGTERM's smart shutdown waits for every client).
STOPSIGNAL SIGINT
EXPOSE 5432
CMD ["postgres"]
