#!/usr/bin/env python3
import aws_cdk as cdk

from stacks.platform_stack import PlatformStack

app = cdk.App()
PlatformStack(app, "Platform")
app.synth()
