import * as cdk from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import { KubectlV33Layer } from '@aws-cdk/lambda-layer-kubectl-v33';
import { Construct } from 'constructs';

// A Fargate-only cluster: the default profile serves `default` and
// `kube-system`, one more profile serves the applications.
export class PlatformStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);

    const cluster = new eks.FargateCluster(this, 'Cluster', {
      version: eks.KubernetesVersion.V1_33,
      kubectlLayer: new KubectlV33Layer(this, 'Kubectl'),
    });

    cluster.addFargateProfile('Apps', {
      selectors: [{ namespace: 'apps' }],
    });

    cluster.addHelmChart('Podinfo', {
      chart: 'podinfo',
      repository: 'https://stefanprodan.github.io/podinfo',
      version: '6.14.1',
      namespace: 'apps',
      values: {
        replicaCount: 2,
        resources: { requests: { cpu: '250m', memory: '256Mi' } },
      },
    });

    cluster.addManifest('Api', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api', namespace: 'apps' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'api' } },
        template: {
          metadata: { labels: { app: 'api' } },
          spec: {
            containers: [{
              name: 'api',
              image: 'public.ecr.aws/nginx/nginx:1.27',
              resources: { requests: { cpu: '500m', memory: '1Gi' } },
            }],
          },
        },
      },
    });
  }
}
