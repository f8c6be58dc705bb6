import * as cdk from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import { KubectlV33Layer } from '@aws-cdk/lambda-layer-kubectl-v33';
import { Construct } from 'constructs';

// A Fargate-only cluster given two DaemonSets: Fargate runs none of them.
export class LoggingStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);

    const cluster = new eks.FargateCluster(this, 'Cluster', {
      clusterName: 'logging',
      version: eks.KubernetesVersion.V1_33,
      kubectlLayer: new KubectlV33Layer(this, 'Kubectl'),
    });

    new eks.KubernetesManifest(this, 'LogShipper', {
      cluster,
      manifest: [{
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'log-shipper', namespace: 'kube-system' },
        spec: {
          selector: { matchLabels: { app: 'log-shipper' } },
          template: {
            metadata: { labels: { app: 'log-shipper' } },
            spec: {
              containers: [{
                name: 'shipper',
                image: 'public.ecr.aws/aws-observability/aws-for-fluent-bit:stable',
                resources: { requests: { cpu: '100m', memory: '128Mi' } },
              }],
            },
          },
        },
      }],
    });

    cluster.addHelmChart('FluentBit', {
      chart: 'fluent-bit',
      repository: 'https://fluent.github.io/helm-charts',
      version: '0.58.1',
      namespace: 'default',
    });
  }
}
