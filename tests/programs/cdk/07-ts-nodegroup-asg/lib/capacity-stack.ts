import * as cdk from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import { KubectlV33Layer } from '@aws-cdk/lambda-layer-kubectl-v33';
import { Construct } from 'constructs';

// EC2 capacity from a managed node group and a self-managed group: the
// DaemonSet has nodes to run on, Fargate serves one namespace.
export class CapacityStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);

    const cluster = new eks.Cluster(this, 'Cluster', {
      clusterName: 'capacity',
      version: eks.KubernetesVersion.V1_33,
      kubectlLayer: new KubectlV33Layer(this, 'Kubectl'),
      defaultCapacity: 0,
    });

    cluster.addNodegroupCapacity('General', {
      nodegroupName: 'general',
      instanceTypes: [new ec2.InstanceType('m6i.large')],
      minSize: 2,
    });

    cluster.addAutoScalingGroupCapacity('Spot', {
      instanceType: new ec2.InstanceType('c6i.large'),
      minCapacity: 0,
      maxCapacity: 4,
    });

    cluster.addFargateProfile('Serverless', {
      fargateProfileName: 'serverless',
      selectors: [{ namespace: 'serverless' }],
    });

    cluster.addManifest('Exporter', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'node-exporter', namespace: 'monitoring' },
      spec: {
        selector: { matchLabels: { app: 'node-exporter' } },
        template: {
          metadata: { labels: { app: 'node-exporter' } },
          spec: {
            hostNetwork: true,
            containers: [{ name: 'exporter', image: 'quay.io/prometheus/node-exporter:v1.8.2' }],
          },
        },
      },
    });
  }
}
