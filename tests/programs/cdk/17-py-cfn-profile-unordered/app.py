#!/usr/bin/env python3
import aws_cdk as cdk

from stacks.cfn_profile_stack import CfnProfileStack

app = cdk.App()
CfnProfileStack(app, "CfnProfile")
app.synth()
