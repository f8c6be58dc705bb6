import * as cdk from 'aws-cdk-lib';
import { L1Stack } from '../lib/l1-stack';

const app = new cdk.App();
new L1Stack(app, 'L1');
