import * as cdk from 'aws-cdk-lib';
import { MixedStack } from '../lib/mixed-stack';

const app = new cdk.App();
new MixedStack(app, 'Mixed');
