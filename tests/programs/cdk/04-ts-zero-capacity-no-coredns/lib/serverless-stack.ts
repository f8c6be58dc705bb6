import * as cdk from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import { KubectlV33Layer } from '@aws-cdk/lambda-layer-kubectl-v33';
import { Construct } from 'constructs';

// No EC2 capacity and Fargate profiles for kube-system and the apps, but
// CoreDNS keeps its `compute-type: ec2` annotation: nothing patches it.
export class ServerlessStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);

    const cluster = new eks.Cluster(this, 'Cluster', {
      clusterName: 'serverless',
      version: eks.KubernetesVersion.V1_33,
      kubectlLayer: new KubectlV33Layer(this, 'Kubectl'),
      defaultCapacity: 0,
    });

    cluster.addFargateProfile('System', {
      fargateProfileName: 'system',
      selectors: [{ namespace: 'kube-system' }],
    });
    cluster.addFargateProfile('Apps', {
      fargateProfileName: 'apps',
      selectors: [{ namespace: 'apps' }],
    });
  }
}
