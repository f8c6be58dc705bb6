import * as cdk from 'aws-cdk-lib';
import { LoggingStack } from '../lib/logging-stack';

const app = new cdk.App();
new LoggingStack(app, 'Logging');
