// Public surface of online/: continuous evaluation of production traffic — online rules, the sample a run
// judges, a run's steps over the store, and the alerts a regression posts. The queue (queue/online-tick.ts,
// queue/online-schedules.ts) schedules the rules and runs their runs as jobs.
export {
  type Delivery,
  type DimensionCheck,
  ONLINE_ALERT_FORMAT,
  type OnlineAlert,
  webhookBody,
} from "./online-alerts.ts";
export {
  ONLINE_DIMENSIONS,
  ONLINE_SESSION_METRICS,
  type OnlineRule,
  OnlineRuleSchema,
  OnlineRulesSchema,
  type OnlineTick,
  OnlineTickSchema,
  ruleMeasures,
} from "./online-rule.ts";
export {
  completeOnlineRun,
  type OnlineSampleEvaluation,
  onlineRunSource,
  openOnlineRun,
  prepareOnlineSample,
} from "./online-run.ts";
export { type CandidateMessage, sampleMessages } from "./online-sample.ts";
