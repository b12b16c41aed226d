-- GEO runs started from the console say so (trigger 'console'), beside the API, MCP and schedule.
alter table geo_runs drop constraint geo_runs_trigger_check;
alter table geo_runs add constraint geo_runs_trigger_check
  check (trigger in ('api', 'schedule', 'mcp', 'console'));
