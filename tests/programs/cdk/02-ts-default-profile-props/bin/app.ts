import * as cdk from 'aws-cdk-lib';
import { ObservabilityStack } from '../lib/observability-stack';

const app = new cdk.App();
// Grafana goes to `monitoring`, which the default profile does not select.
new ObservabilityStack(app, 'Observability', {
  appNamespace: 'web',
  monitoringNamespace: 'monitoring',
});
