import * as cdk from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import { Construct } from 'constructs';

const ROLE_ARN = 'arn:aws:iam::111122223333:role/eks-cluster';
const POD_ROLE_ARN = 'arn:aws:iam::111122223333:role/eks-fargate-pods';
const PRIVATE_SUBNETS = ['subnet-0a1b2c3d4e5f60001', 'subnet-0a1b2c3d4e5f60002'];

// The L1 constructs, written as CloudFormation would be: the two profiles
// have no dependency between them, and the CoreDNS add-on is not told to
// run on Fargate.
export class L1Stack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);

    const cluster = new eks.CfnCluster(this, 'Cluster', {
      name: 'l1',
      version: '1.33',
      roleArn: ROLE_ARN,
      resourcesVpcConfig: { subnetIds: PRIVATE_SUBNETS },
    });

    const system = new eks.CfnFargateProfile(this, 'System', {
      clusterName: cluster.ref,
      fargateProfileName: 'system',
      podExecutionRoleArn: POD_ROLE_ARN,
      subnets: PRIVATE_SUBNETS,
      selectors: [{ namespace: 'kube-system' }],
    });

    new eks.CfnFargateProfile(this, 'Apps', {
      clusterName: cluster.ref,
      fargateProfileName: 'apps',
      podExecutionRoleArn: POD_ROLE_ARN,
      subnets: PRIVATE_SUBNETS,
      selectors: [{ namespace: 'apps', labels: [{ key: 'tier', value: 'web' }] }],
    });

    const coredns = new eks.CfnAddon(this, 'CoreDns', {
      clusterName: cluster.ref,
      addonName: 'coredns',
      resolveConflicts: 'OVERWRITE',
    });
    coredns.addDependency(system);
  }
}
