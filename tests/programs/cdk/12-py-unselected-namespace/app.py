#!/usr/bin/env python3
import aws_cdk as cdk

from stacks.observability_stack import ObservabilityStack

app = cdk.App()
ObservabilityStack(app, "Observability", monitoring_namespace="monitoring")
app.synth()
