import * as cdk from 'aws-cdk-lib';
import { ToolsStack } from '../lib/tools-stack';

const app = new cdk.App();
new ToolsStack(app, 'Tools');
