/**
 * Deployments: the tasks and channels a job starts with ({@link io.koala.deploy.DeploymentPlan}),
 * and the deployment as reconfigurations change it ({@link io.koala.deploy.LiveDeployment}). Plain
 * Java.
 */
@Internal
package io.koala.deploy;

import io.koala.Internal;
