import * as cdk from 'aws-cdk-lib';
import { CapacityStack } from '../lib/capacity-stack';

const app = new cdk.App();
new CapacityStack(app, 'Capacity');
