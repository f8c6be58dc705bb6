import * as cdk from 'aws-cdk-lib';
import { JobsStack } from '../lib/jobs-stack';

const app = new cdk.App();
new JobsStack(app, 'Jobs');
