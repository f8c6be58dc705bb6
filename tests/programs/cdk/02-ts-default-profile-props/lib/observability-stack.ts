import * as cdk from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import { KubectlV33Layer } from '@aws-cdk/lambda-layer-kubectl-v33';
import { Construct } from 'constructs';
import { CLUSTER_NAME, GRAFANA_CHART, GRAFANA_REPOSITORY, GRAFANA_VERSION } from './config';

export interface ObservabilityStackProps extends cdk.StackProps {
  readonly appNamespace: string;
  readonly monitoringNamespace: string;
}

export class ObservabilityStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props: ObservabilityStackProps) {
    super(scope, id, props);

    const cluster = new eks.FargateCluster(this, 'Cluster', {
      clusterName: CLUSTER_NAME,
      version: eks.KubernetesVersion.V1_33,
      kubectlLayer: new KubectlV33Layer(this, 'Kubectl'),
      defaultProfile: {
        fargateProfileName: 'system-and-web',
        selectors: [
          { namespace: 'kube-system' },
          { namespace: props.appNamespace },
        ],
      },
    });

    cluster.addHelmChart('Grafana', {
      chart: GRAFANA_CHART,
      repository: GRAFANA_REPOSITORY,
      version: GRAFANA_VERSION,
      namespace: props.monitoringNamespace,
      createNamespace: true,
      values: {
        persistence: { enabled: false },
        resources: { requests: { cpu: '250m', memory: '512Mi' } },
      },
    });
  }
}
