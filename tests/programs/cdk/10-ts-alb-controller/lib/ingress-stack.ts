import * as cdk from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import { KubectlV33Layer } from '@aws-cdk/lambda-layer-kubectl-v33';
import { Construct } from 'constructs';

interface Addon {
  readonly id: string;
  readonly chart: string;
  readonly repository: string;
  readonly version: string;
}

const ADDONS: Addon[] = [
  { id: 'MetricsServer', chart: 'metrics-server', repository: 'https://kubernetes-sigs.github.io/metrics-server', version: '3.12.2' },
  { id: 'ExternalDns', chart: 'external-dns', repository: 'https://kubernetes-sigs.github.io/external-dns', version: '1.15.0' },
];

// The load balancer controller through the cluster's option, two more
// add-ons from a list, all in kube-system, which the default profile selects.
export class IngressStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);

    const cluster = new eks.FargateCluster(this, 'Cluster', {
      clusterName: 'ingress',
      version: eks.KubernetesVersion.V1_33,
      kubectlLayer: new KubectlV33Layer(this, 'Kubectl'),
      albController: { version: eks.AlbControllerVersion.V2_8_2 },
    });

    cluster.addServiceAccount('ExternalDnsAccount', {
      name: 'external-dns',
      namespace: 'kube-system',
    });

    ADDONS.map((a) => cluster.addHelmChart(a.id, {
      chart: a.chart,
      repository: a.repository,
      version: a.version,
      namespace: 'kube-system',
      values: { tolerations: [{ key: 'eks.amazonaws.com/compute-type', operator: 'Equal', value: 'fargate', effect: 'NoSchedule' }] },
    }));
  }
}
