import * as cdk from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import { KubectlV33Layer } from '@aws-cdk/lambda-layer-kubectl-v33';
import { Construct } from 'constructs';

const NAMESPACES = ['kube-system', 'apps', 'jobs'];

export class JobsStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);

    const cluster = new eks.Cluster(this, 'Cluster', {
      clusterName: 'jobs',
      version: eks.KubernetesVersion.V1_33,
      kubectlLayer: new KubectlV33Layer(this, 'Kubectl'),
      defaultCapacity: 0,
      coreDnsComputeType: eks.CoreDnsComputeType.FARGATE,
    });

    for (const ns of NAMESPACES) {
      new eks.FargateProfile(this, `Profile-${ns}`, {
        cluster,
        fargateProfileName: `fp-${ns}`,
        selectors: [{ namespace: ns }],
      });
    }

    new eks.KubernetesManifest(this, 'Worker', {
      cluster,
      manifest: [{
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'worker', namespace: 'jobs' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'worker' } },
          template: {
            metadata: { labels: { app: 'worker' } },
            spec: {
              containers: [{
                name: 'worker',
                image: 'public.ecr.aws/docker/library/python:3.12-slim',
                resources: { requests: { cpu: '1', memory: '2Gi' } },
              }],
            },
          },
        },
      }],
    });
  }
}
