-- The verify_agent_visits job asks two questions of agent_events: which (agent, address) pairs
-- have `pending` events (each round, and its update of those events), and which `unverified`
-- events a definite verdict moves. One index over both states answered the first by reading
-- every unverified event of the retention window too, filtered on the heap: a round after a
-- collect of 166,000 visits that reverse DNS could not settle read 232,000 buffers to find 66,000
-- pending events, and during a log import the job runs round after round (each batch's pending
-- visits take a cached verdict at once), so it spent more Postgres CPU than the import itself.
-- Two disjoint indexes: a pending event is in one, an unverified one in the other, so ingestion
-- writes the same entries as before and a round reads only the pending events.
drop index agent_events_unsettled_idx;
create index agent_events_pending_idx on agent_events (agent, ip) where verification = 'pending';
create index agent_events_unverified_idx on agent_events (agent, ip) where verification = 'unverified';
