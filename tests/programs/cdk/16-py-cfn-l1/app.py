#!/usr/bin/env python3
import aws_cdk as cdk

from stacks.l1_stack import L1Stack

app = cdk.App()
L1Stack(app, "L1")
app.synth()
