import * as cdk from 'aws-cdk-lib';
import { IngressStack } from '../lib/ingress-stack';

const app = new cdk.App();
new IngressStack(app, 'Ingress');
